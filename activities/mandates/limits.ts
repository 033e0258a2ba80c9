/** SPEC: at most 25 L2 applies per mandate per UTC day (a mandate's limit: its credential states it, the apply's cap enforces it). */
export const DAILY_L2_CAP = 25;
