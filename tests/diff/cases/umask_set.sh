umask 027; umask
