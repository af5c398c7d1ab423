case 5 in [0-9]) echo digit;; esac
