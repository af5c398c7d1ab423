echo "  lead trail  " | { read; echo "[$REPLY]"; }; echo "  lead trail  " | { read v; echo "[$v]"; }
