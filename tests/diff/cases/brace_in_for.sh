for i in {1..3}; do echo n$i; done
