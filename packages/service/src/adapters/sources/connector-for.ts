import type { SourceConnector, SourceType } from '../../sources/model.js';
import type { ConnectorOptions } from './connectors.js';

/**
 * The one connector a listing thread needs, loaded on demand: a folder listing does not load the AWS
 * SDK nor the URL fetcher, which made a thread's start about a third of a second.
 */
export async function connectorFor(type: SourceType, options: ConnectorOptions): Promise<SourceConnector> {
  if (type === 'folder') {
    const { FolderConnector } = await import('./folder.js');
    return new FolderConnector({ maxBytes: options.maxFileBytes, imagesReadable: options.imagesReadable });
  }
  const [{ AddressGuard }, { AllowList }] = await Promise.all([
    import('../web/guard.js'),
    import('../web/address-policy.js'),
  ]);
  const guard = new AddressGuard(new AllowList(options.allowHosts));
  if (type === 's3') {
    const { S3Connector } = await import('./s3.js');
    return new S3Connector({
      guard,
      timeoutMs: options.fetch.timeoutMs,
      maxBytes: options.fetch.maxBytes,
      allowServerCredentials: options.s3ServerCredentials,
    });
  }
  const [{ GuardedFetcher }, { WebsiteConnector }] = await Promise.all([
    import('../web/fetcher.js'),
    import('../../sources/website.js'),
  ]);
  return new WebsiteConnector(new GuardedFetcher({ guard, ...options.fetch, userAgent: options.userAgent }), {
    maxPageBytes: options.fetch.maxBytes,
    imagesReadable: options.imagesReadable,
  });
}
