touch f; mkdir d; [ -f f ] && echo file; [ -d d ] && echo dir; [ -e nope ] || echo missing; [ -s f ] || echo empty
