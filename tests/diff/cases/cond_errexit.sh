set -e; [[ a == b ]] || echo guarded; [[ a == a ]]; echo ran; [[ a == b ]]; echo never
