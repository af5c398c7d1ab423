case zzz in a) echo a;; *) echo default;; esac
