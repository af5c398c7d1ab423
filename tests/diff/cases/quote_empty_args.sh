set -- "" a ""; echo $#
