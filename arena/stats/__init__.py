"""Pure statistics: ratings (rating), encounters folded from their legs (encounters), the SPRT
statistics (sprt) and the counting of a test's pairs (sprt_pairs), per-bot resource figures
from match logs (resources). No I/O: recorded results in, figures out."""
