cat <<A; cat <<B
first
A
second
B
