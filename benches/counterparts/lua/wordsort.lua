-- Program "wordsort" (benches/programs/wordsort.flx): 200 000 words spelt from LCG draws,
-- sorted; runs of equal words counted; the most frequent word and the number of words.
local seed = 42
local function spell(s)
  local w = ""; local x = s
  for j = 1, 3 + s % 5 do w = w .. string.char(97 + x % 7); x = x // 7 end
  return w
end
local words = {}
for i = 1, 200000 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  words[i] = spell(seed % 5000)
end
table.sort(words)
local counts = {}; local run = 1
for i = 2, 200000 do
  if words[i] == words[i - 1] then run = run + 1
  else counts[#counts + 1] = {run, words[i - 1]}; run = 1 end
end
counts[#counts + 1] = {run, words[200000]}
local best = 1
for k = 1, #counts do if counts[k][1] > counts[best][1] then best = k end end
print(counts[best][2] .. " " .. counts[best][1] .. " " .. #counts)
