// Safe files under ~/.baton: real folders of this user all the way down, no symbolic links, O_EXCL|O_NOFOLLOW
// for new files, atomic replacement, bounded no-follow reads and appends. Dependency-free so the startup runner bundles it.
export { appendFileBoundedSync, type BoundedAppendOptions } from "./append.js";
export { createFileExclusiveSync, linkFileUnder, removeFileUnder } from "./exclusive.js";
export {
  assertRealFolder,
  ensureFolderUnder,
  ensureRoot,
  ensureRootParents,
  foldersBetween,
  inspectFolderUnder,
} from "./folders.js";
export { readFileSafeSync, type SafeReadOptions } from "./read.js";
export {
  assertReplaceableFile,
  assertWritableUnder,
  isProcessAlive,
  removeStaleTemporaries,
  temporaryPathFor,
  writeFileAtomic,
  writeFileAtomicSync,
} from "./write-atomic.js";
