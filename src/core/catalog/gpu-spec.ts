/** One accelerator of the embedded GPU catalog (data/catalog/gpus.json, with its sources). */
export interface GpuSpec {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly architecture: string;
  readonly computeCapability?: string | null;
  /** Marketed size in GiB-ish units ("80GB"); not what a process can use. */
  readonly memoryGiB: number;
  readonly memoryType?: string;
  readonly nvidiaSmi?: { readonly memoryTotalMiB: number; readonly source: string; readonly note?: string };
  readonly rocmSmi?: { readonly vramTotalBytes: number | null; readonly source: string };
  /** nvidia-smi `memory.total` in bytes (what the driver reports); null where unknown. */
  readonly memoryBytes?: number | null;
  readonly memoryBandwidthGBs?: number | null;
  readonly bf16: boolean;
  readonly fp8?: boolean;
  readonly tf32?: boolean;
  readonly denseBf16Tflops: number | null;
  readonly denseFp16Tflops?: number | null;
  readonly denseFp8Tflops?: number | null;
  readonly denseTf32Tflops?: number | null;
  readonly interconnect?: {
    readonly type: string;
    readonly version?: number | string | null;
    readonly bidirectionalGBs?: number | null;
    readonly unidirectionalGBs?: number | null;
    readonly links?: number;
    readonly note?: string;
  } | null;
  readonly pcie?: { readonly gen: number; readonly lanes: number } | null;
  readonly formFactor?: string;
  readonly tdpW?: number | null;
  readonly releaseYear?: number;
  readonly sources: readonly string[];
  readonly uncertain?: readonly string[];
  readonly notes?: string;
}
