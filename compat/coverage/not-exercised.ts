/**
 * Surface entries no journey exercises on purpose, each with the reason. The
 * coverage figures count them apart ("exempt"), never as covered; an entry
 * leaves this table the day a journey step can send it.
 */
export const NOT_EXERCISED_BY_JOURNEY: Readonly<Record<string, string>> = {
  'opcode:OutputSpan': 'the reference host never sends it; clients read it from hosts that transform output (Orca), and the client tests cover that path',
  'field:OutputSpan.data': 'as opcode:OutputSpan',
  'field:OutputSpan.rawLength': 'as opcode:OutputSpan',
  'field:OutputSpan.transformed': 'as opcode:OutputSpan',
  'field:Resized.seq': "declared since wire v1, but no reference host writes it: the frame header's seq carries the same high-water mark; clients accept it from hosts that do",
  'error:INTERNAL_ERROR': 'a host bug answered on the wire; no well-formed journey can provoke it on purpose',
};

/**
 * Decoder codes travel only inside a host's BAD_FRAME message or as a
 * receiver's refusal: a journey that provoked them would be sending garbage, so
 * the codec's bad-input tests cover them and the static pass guards their names.
 */
export function notExercisedReason(key: string): string | undefined {
  if (key.startsWith('error:decoder.')) return "a decoder's refusal of a malformed frame; the codec's bad-input tests cover each code";
  return NOT_EXERCISED_BY_JOURNEY[key];
}
