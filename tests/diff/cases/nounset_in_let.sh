set -u; let y=nope+1; echo never
