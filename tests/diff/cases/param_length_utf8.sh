x="héllo"; echo ${#x}
