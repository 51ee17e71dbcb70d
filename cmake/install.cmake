# The installed package: `cmake --install build --prefix P` puts the library's public headers under
# P/include/warpmind/, one static library per module under P/lib (shared ones with
# -DBUILD_SHARED_LIBS=ON, which find each other through their RUNPATH $ORIGIN), warpmindConfig.cmake,
# warpmindConfigVersion.cmake and warpmindTargets.cmake under P/lib/cmake/warpmind, and
# P/lib/pkgconfig/warpmind.pc. Downstream:
#   find_package(warpmind 0.2 REQUIRED COMPONENTS field crowd)
#   target_link_libraries(game PRIVATE warpmind::field warpmind::crowd)
# Components: core field crowd aoi ddm combat nav world search scenarios c ai (c: the C API; ai: all C++ modules). A CUDA build's modules
# link their kernels' libraries (warpmind::gpu_<module>) and the CUDA runtime, which the package's
# config takes from the CUDA toolkit where find_package(CUDAToolkit) finds one and from the package's
# own copy otherwise (below); a CPU build needs nothing but threads.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(wm_install_targets warpmind_core warpmind_field warpmind_crowd warpmind_aoi warpmind_ddm warpmind_combat warpmind_nav
                       warpmind_world warpmind_search warpmind_scenarios warpmind_c warpmind_ai)
if(WARPMIND_HAVE_CUDA)
  list(APPEND wm_install_targets warpmind_gpu_core warpmind_gpu_field warpmind_gpu_crowd warpmind_gpu_aoi
                                 warpmind_gpu_ddm warpmind_gpu_combat warpmind_gpu_nav warpmind_gpu_search)
endif()
install(TARGETS ${wm_install_targets} EXPORT warpmindTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/ai/include/warpmind DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT warpmindTargets NAMESPACE warpmind:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpmind)

# A CUDA build carries the CUDA runtime it links (the toolkit's redistributable libcudart_static.a, or
# libcudart.so in a shared build) under P/lib/warpmind-cuda/, so a game can configure and link against
# the package on a machine without the CUDA toolkit: the config defines CUDA::cudart_static /
# CUDA::cudart from that copy when find_package(CUDAToolkit) finds none. A shared build's libraries find
# it through their RUNPATH.
set(WARPMIND_PACKAGE_CUDART "")
if(WARPMIND_HAVE_CUDA)
  if(BUILD_SHARED_LIBS)
    file(REAL_PATH "${CUDAToolkit_LIBRARY_DIR}/libcudart.so" wm_cudart)
    get_filename_component(WARPMIND_PACKAGE_CUDART "${wm_cudart}" NAME)
  else()
    set(wm_cudart "${CUDAToolkit_LIBRARY_DIR}/libcudart_static.a")
    set(WARPMIND_PACKAGE_CUDART libcudart_static.a)
  endif()
  install(FILES "${wm_cudart}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/warpmind-cuda)
endif()
set(WARPMIND_PACKAGE_CUDA ${WARPMIND_HAVE_CUDA})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/warpmindConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/warpmindConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpmind)
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/warpmindConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/warpmindConfig.cmake ${CMAKE_BINARY_DIR}/warpmindConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpmind)

# pkg-config: every module (dependents first); a CUDA build adds its kernels and the static CUDA runtime.
set(wm_pc_libs "-lwarpmind_c -lwarpmind_scenarios -lwarpmind_search -lwarpmind_combat -lwarpmind_world -lwarpmind_nav -lwarpmind_ddm -lwarpmind_aoi -lwarpmind_crowd -lwarpmind_field -lwarpmind_core")
set(wm_pc_private "-pthread -lstdc++ -lm")
if(WARPMIND_HAVE_CUDA)
  string(APPEND wm_pc_libs " -lwarpmind_gpu_search -lwarpmind_gpu_combat -lwarpmind_gpu_nav -lwarpmind_gpu_ddm -lwarpmind_gpu_aoi -lwarpmind_gpu_crowd -lwarpmind_gpu_field -lwarpmind_gpu_core")
  if(BUILD_SHARED_LIBS)
    string(APPEND wm_pc_private " -L${CUDAToolkit_LIBRARY_DIR} -lcudart")
  else()
    string(APPEND wm_pc_private " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
  endif()
endif()
if(BUILD_SHARED_LIBS)  # programs linked through pkg-config find the shared libraries where they are installed
  string(APPEND wm_pc_libs " -Wl,-rpath,\${libdir}")
endif()
# The prefix is found from the file's own place (${pcfiledir}), so `cmake --install --prefix P` works.
file(RELATIVE_PATH wm_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(${CMAKE_SOURCE_DIR}/cmake/warpmind.pc.in ${CMAKE_BINARY_DIR}/warpmind.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/warpmind.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
