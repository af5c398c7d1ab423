x=hello.world.txt; echo ${x//[lo]/_}
