// The store's door to the one atomic-write function (it lives in src/runtime so the config write-back can use it too).
export { atomicWrite, fsyncDir, tmpPathFor, TMP_SUFFIX, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type AtomicWriteOptions } from '../runtime/atomic-write.js';
