# cmake "-DIN=a.js;b.js" -DOUT=explore_js.c -DNAME=cg_explore_js -P embed.cmake
# The page's script as a C string, and its SHA-256 in base64 for the
# page's Content-Security-Policy (script-src 'sha256-...'): CMake alone,
# no other build step. The inputs are joined in order into one script
# (one file would pass the 900-line limit), written beside OUT and hashed.
set(joined "")
foreach(part IN LISTS IN)
  file(READ "${part}" text)
  string(APPEND joined "${text}")
endforeach()
file(WRITE "${OUT}.js" "${joined}")
file(READ "${OUT}.js" hex HEX)
string(LENGTH "${hex}" n)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")

file(SHA256 "${OUT}.js" sha)
set(alphabet "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
set(b64 "")
# 32 bytes: ten groups of three, then two bytes and one '='.
foreach(g RANGE 0 10)
  math(EXPR at "${g} * 6")
  if(g LESS 10)
    string(SUBSTRING "${sha}" ${at} 6 h)
  else()
    string(SUBSTRING "${sha}" ${at} 4 h)
    set(h "${h}00")
  endif()
  math(EXPR v "0x${h}")
  foreach(shift 18 12 6 0)
    if(g EQUAL 10 AND shift EQUAL 0)
      string(APPEND b64 "=")
    else()
      math(EXPR i "(${v} >> ${shift}) & 63")
      string(SUBSTRING "${alphabet}" ${i} 1 c)
      string(APPEND b64 "${c}")
    endif()
  endforeach()
endforeach()

file(WRITE "${OUT}.tmp" "/* Written by render/js/embed.cmake from ${NAME}'s source: do not edit. */\n"
  "const char ${NAME}[] = {\n${bytes}0};\nconst char ${NAME}_sha256[] = \"${b64}\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
