# A new shell takes PWD when it names the folder, else the folder as the
# kernel names it (every link resolved).
mkdir -p target; ln -s -f target symlink
cd symlink
bash -c 'basename "$(pwd)"; basename "$PWD"'
unset PWD
bash -c 'basename "$(pwd)"; basename "$PWD"'
PWD=/ bash -c 'basename "$(pwd)"'
