declare -A zz=([q]=1)
declare -A | grep zz
