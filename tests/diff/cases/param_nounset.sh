set -u; x=1; echo $x; echo ${y:-ok}; echo $y; echo never
