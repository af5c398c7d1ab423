HOME=/h; [[ ~ == /h ]] && echo tilde; [[ "~" == /h ]] || echo quoted-tilde
