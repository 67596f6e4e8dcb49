// glibc's non-portable posix_spawn file actions (glibc 2.34+), which Swift's Glibc module does not
// declare: the child closes every descriptor from a number up, and starts in a directory.
#ifndef SWITCHYARD_CSPAWN_H
#define SWITCHYARD_CSPAWN_H

#ifdef __linux__
#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np: close every descriptor >= `from` in the child.
int switchyard_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/// posix_spawn_file_actions_addchdir_np: the child starts in `path`.
int switchyard_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path);
#endif

#endif
