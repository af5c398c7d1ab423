touch a; [[ a -ef a ]] && echo same-file; [[ a -nt nope ]] && echo newer-than-missing; [[ nope -ot a ]] && echo missing-older
