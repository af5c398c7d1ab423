[[ "*" == \* ]] && echo star; touch aa; [[ a* == aa ]] || echo no-glob-on-left
