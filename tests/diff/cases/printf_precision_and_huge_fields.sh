printf '%5.3d|%-4s|%.2s|%.d|%.0x|%#.0o|%.0d|\n' 7 ab xyz 0 0 0 5
printf '%+.3i|% d|%08.3f|\n' 4 9 2.5
