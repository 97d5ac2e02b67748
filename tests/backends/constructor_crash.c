/* A bad test backend that dies while it is loaded: a constructor (run by dlopen, before
 * mxconform can look up any symbol) writes through a null pointer, SIGSEGV. */
#include "mxconform/backend.h"

__attribute__((constructor)) static void crash_while_loading(void) {
  /* Both volatile: the compiler can neither see that the pointer is null nor drop the store. */
  volatile int* volatile target = 0;
  *target = 1;
}

/* Never reached; present so that only the constructor makes this library unusable. */
const struct mxc_backend* mxconform_backend_v1(void) { return 0; }
