trap 'echo t' TERM; trap 'echo e' ERR; trap 'echo x' EXIT; trap 'echo i' INT; trap '' USR1; trap; trap -p INT; trap - INT; trap -p
