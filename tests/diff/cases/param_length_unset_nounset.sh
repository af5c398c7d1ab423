set -u; echo ${#undef}; echo never
