echo ${#undef}; x=; echo ${#x}; y=abc; echo ${#y}
