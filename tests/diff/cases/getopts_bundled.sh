set -- -xy; while getopts xy o; do echo $o; done
