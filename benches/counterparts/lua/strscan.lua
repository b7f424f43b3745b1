-- Program "strscan" (benches/programs/strscan.flx): build a string by appending, then scan it
-- byte by byte (string.byte).
local line = "The Quick brown fox, 42 jumps over 7 lazy dogs; ok 0123456789\n"
local parts = {}
for r = 1, 40000 do parts[r] = line end
local s = table.concat(parts)
local vowels, digits, spaces, lines, dsum = 0, 0, 0, 0, 0
local zero, nine = string.byte("0"), string.byte("9")
local space, nl = string.byte(" "), string.byte("\n")
local va, ve, vi, vo, vu = string.byte("aeiou", 1, 5)
for i = 1, #s do
  local c = string.byte(s, i)
  if c >= zero and c <= nine then
    digits = digits + 1
    dsum = dsum + (c - zero)
  elseif c == space then
    spaces = spaces + 1
  elseif c == nl then
    lines = lines + 1
  else
    if c >= 65 and c <= 90 then c = c + 32 end
    if c == va or c == ve or c == vi or c == vo or c == vu then
      vowels = vowels + 1
    end
  end
end
print(#s .. " " .. vowels .. " " .. digits .. " " .. spaces .. " " .. lines .. " " .. dsum)
