/**
 * Issue 41's reported follow-up case: one note of two sections, whose "How do I enable it?" after
 * "What does the firewall block by default?" was answered with the printing section padded in. The
 * unit tests ask it of the answerer, the integration tests of the service.
 */
export const FIREWALL_AND_PRINTING = [
  '# Firewall',
  '',
  'The firewall blocks all incoming connections by default. Outgoing connections are allowed. ' +
    'To enable it, run ufw enable as root; it then starts at every boot.',
  '',
  '# Printing',
  '',
  'Printers are added in the CUPS web interface at port 631. The print queue is shown by lpstat.',
].join('\n');
