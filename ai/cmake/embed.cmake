# Writes the bytes of IN as a C++ array: cmake -DIN=file -DOUT=file.cpp -DNAME=symbol [-DNAMESPACE=ns] -P
# embed.cmake (NAME and NAME + "Size" in namespace NAMESPACE, by default warpmind::search::chess).
if(NOT NAMESPACE)
  set(NAMESPACE warpmind::search::chess)
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
file(WRITE ${OUT}.tmp "// Generated from ${IN} by embed.cmake.\n#include <cstddef>\nnamespace ${NAMESPACE} {\nextern const unsigned char ${NAME}[];\nextern const std::size_t ${NAME}Size;\nalignas(64) const unsigned char ${NAME}[] = {\n${hex}};\nconst std::size_t ${NAME}Size = ${bytes};\n}  // namespace ${NAMESPACE}\n")
file(RENAME ${OUT}.tmp ${OUT})
