export { cleanupSuite, onShutdown, sweepStale, type ShutdownOptions, type SweepOptions } from "./cleanup.js";
export { connectDocker, dockerAvailable, type ConnectOptions } from "./client.js";
export {
  CONTAINER_PATHS,
  containerEnv,
  containerName,
  containerOptions,
  LABEL,
  VALIDATION_URL_VAR,
} from "./container.js";
export { DockerExecutor, type DockerExecutorOptions } from "./executor.js";
export { AgentBuildError, ImageMissingError, inspectImage, prepareImage, type ImageInfo } from "./image.js";
export { buildTag, dockerSettings, type DockerSettings } from "./settings.js";
export { dockerResources, setupDocker, type DockerSetup, type SetupOptions } from "./setup.js";
export { dockerDescriptor } from "./backend.js";
