set -- p q; for x; do echo $x; done
