"""What several puzzle kinds share: text codecs, errors, and the integer programs (HiGHS) behind the exact
solvers of Shikaku and Hashiwokakero."""
