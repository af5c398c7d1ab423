p="a*"; case abc in $p) echo match;; esac
