import type { FunctionModule } from "../module.js";
import { SMA_STATE, smaKernel } from "../shared/sma.js";

export const avg: FunctionModule = {
  name: "avg",
  params: [{ name: "src", kind: "series" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel: smaKernel,
  stateSize: () => SMA_STATE,
  doc: "Arithmetic mean of the last n values (the same function as sma, source required).",
  example: "volume > avg(volume, 20) * 2",
  reference: "TA-Lib SMA (the same function as sma)",
  phrases: [
    {
      category: "Volume",
      phrase: "volume more than 2x its average",
      query: "let avgv = avg(volume, 20)\nvolume > avgv * 2",
      aliases: [
        "volume spike",
        "unusual volume",
        "volume surge",
        "high volume",
      ],
      notes: "Volume of the latest bar above twice its 20-bar average.",
    },
    {
      category: "Volume",
      phrase: "huge volume spike (3x its average)",
      query: "volume > avg(volume, 20) * 3",
      aliases: [
        "volume explosion",
        "massive volume",
      ],
      notes: "Volume above three times its 20-bar average.",
    },
    {
      category: "Volume",
      phrase: "above-average volume",
      query: "volume > avg(volume, 20)",
      aliases: [
        "volume above average",
      ],
      notes: "Volume above its 20-bar average.",
    },
    {
      category: "Volume",
      phrase: "rising volume",
      query: "avg(volume, 5) > avg(volume, 20)",
      aliases: [
        "volume increasing",
        "volume building",
      ],
      notes: "The 5-bar average volume is above the 20-bar average.",
    },
    {
      category: "Volume",
      phrase: "volume drying up",
      query: "volume < avg(volume, 20) * 0.5",
      aliases: [
        "low volume",
        "quiet volume",
      ],
      notes: "Volume below half its 20-bar average.",
    },
    {
      category: "Volume",
      phrase: "daily volume spike",
      query: "d::volume > d::avg(volume, 20) * 2",
      aliases: [
        "daily volume more than 2x average",
      ],
      notes: "The last completed day traded more than twice its 20-day average volume.",
    },
    {
      category: "Volume",
      phrase: "high-volume up bar",
      query: "close > open and volume > avg(volume, 20) * 1.5",
      aliases: [
        "accumulation",
        "buying volume",
      ],
      notes: "A bar that closed above its open on volume 1.5x its 20-bar average.",
    },
  ],
};
