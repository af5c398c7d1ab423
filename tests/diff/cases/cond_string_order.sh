[[ a < b ]] && echo lt; [[ b > a ]] && echo gt; [[ abc < abd ]] && echo prefix; [[ B < a ]] && echo upper-first; [[ 10 < 9 ]] && echo strings-not-numbers
