touch f; mkdir -p d; [[ -f f ]] && echo file; [[ -d d ]] && echo dir; [[ -e nope ]] || echo missing; [[ -s f ]] || echo empty-file; echo x > g; [[ -s g ]] && echo non-empty
