app_one=1 app_two=2 other=3
echo ${!app_*}
printf "<%s>" "${!app_@}"; echo
