#pragma once
// The commit mxconform was built from (cmake/write_git_commit.cmake writes its definition at
// every build): "unknown" outside a git checkout, "<sha>-dirty" when tracked files had changes.
namespace mxconform::certify {

const char* git_commit();

}  // namespace mxconform::certify
