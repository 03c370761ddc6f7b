# Per-folder include roots. Headers outside core/, wire/ and client/ (which
# have include/ trees of their own) are included by their path from the
# repository root: "server/service.h", "tools/workload.h". Giving targets the
# repository root itself would let any target include any folder's headers
# without linking it. Instead each folder gets a root of its own in the build
# tree holding a single symlink, <root>/<folder> -> the source folder, and
# only the target that owns the folder adds that root (PUBLIC for
# libraries): a target sees "server/..." only when it links the server.
function(collision_folder_root folder out)
  string(REPLACE "/" "_" name ${folder})
  set(root ${PROJECT_BINARY_DIR}/include_roots/${name})
  set(link ${root}/${folder})
  if(NOT IS_SYMLINK ${link})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${link} SYMBOLIC)
  endif()
  set(${out} ${root} PARENT_SCOPE)
endfunction()

function(collision_folder_includes target scope folder)
  collision_folder_root(${folder} root)
  target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${root}>)
endfunction()

# Every target of the calling directory and below (tests/ only).
macro(collision_folder_includes_directory folder)
  collision_folder_root(${folder} _collision_root)
  include_directories(${_collision_root})
endmacro()
