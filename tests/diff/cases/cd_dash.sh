mkdir x; cd x; cd - >/dev/null; basename "$PWD" >/dev/null; cd x; cd ..; echo ok
