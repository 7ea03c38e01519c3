# Shared by the interface packages here, which scripts/setup.sh builds for rclpy alone.
# Include it after the package's find_package calls, call unity_build_type_supports() after
# rosidl_generate_interfaces().

# rclpy loads the C code, the C type supports and the Python extension; the C++ generator and
# type supports were half the build time and nothing in the venv uses them. -DWITH_CPP=ON
# builds them as well (for a C++ node against these packages).
option(WITH_CPP "also generate and build the C++ code and type supports" OFF)
if(NOT WITH_CPP)
  list(FILTER AMENT_EXTENSIONS_rosidl_generate_idl_interfaces EXCLUDE REGEX "_cpp:")
endif()

# Compile the generated sources of each type support as one translation unit (a unity
# build): the same code, in about two thirds of the time. Not for rosidl_generator_c, whose
# files share static names; a unity build needs each message after the messages it contains.
function(unity_build_type_supports)
  foreach(_target
      rosidl_generator_py
      rosidl_typesupport_c
      rosidl_typesupport_cpp
      rosidl_typesupport_fastrtps_c
      rosidl_typesupport_fastrtps_cpp
      rosidl_typesupport_introspection_c
      rosidl_typesupport_introspection_cpp)
    if(TARGET ${PROJECT_NAME}__${_target})
      set_target_properties(${PROJECT_NAME}__${_target} PROPERTIES
        UNITY_BUILD ON
        UNITY_BUILD_BATCH_SIZE 0)
    endif()
  endforeach()
endfunction()
