for x in apple banana cherry; do case $x in a*) echo A;; b*|c*) echo BC;; esac; done
