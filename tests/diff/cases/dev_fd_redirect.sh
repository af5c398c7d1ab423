echo x > f; while read l; do echo $l; done < <(cat f)
