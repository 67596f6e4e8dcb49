# A handler for `switchyard relay watch --open-with "sh Examples/open.sh"`: it refuses
# every URL with "poison" in it (exit 3) and "opens" the others.
case "$1" in *poison*) exit 3;; esac
echo "opened $1"
