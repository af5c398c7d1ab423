e=; echo before; echo ${e:?is empty}; echo never
