echo one \
two
