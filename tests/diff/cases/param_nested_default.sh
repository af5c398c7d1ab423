unset a b; echo ${a:-${b:-deep}}
