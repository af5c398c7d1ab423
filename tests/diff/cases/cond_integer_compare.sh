[[ 10 -gt 9 ]] && echo gt; [[ 9 -lt 10 ]] && echo lt; [[ 3 -eq 3 && 3 -ne 4 && 3 -le 3 && 3 -ge 2 ]] && echo all
