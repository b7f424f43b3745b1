-- Program "textbuild" (benches/programs/textbuild.flx): 200 000 report lines built by
-- concatenation into a table buffer, joined, then length and a checksum of the bytes.
local parts = {}
for i = 0, 199999 do
  local line = "row " .. tostring(i) .. ": " .. tostring(i * 7 % 1000) .. "," .. tostring(i % 13)
  parts[#parts + 1] = line .. "\n"
end
local s = table.concat(parts)
local sum = 0
for i = 1, #s do sum = (sum * 31 + s:byte(i)) % 1000003 end
print(#s .. " " .. sum)
