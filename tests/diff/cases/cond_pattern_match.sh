[[ abc == a* ]] && echo star; [[ abc == a?c ]] && echo question; [[ abc == [ab]bc ]] && echo bracket; [[ abc == *d ]] || echo nomatch
