x="*"; case abc in "$x") echo lit;; *) echo glob;; esac
