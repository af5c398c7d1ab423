echo "${undef-\z}" ${undef-\z} "${undef-a\b}"
