#ifdef __linux__
#define _GNU_SOURCE
#include <spawn.h>
#include "CSpawn.h"

int switchyard_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int switchyard_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
#endif
